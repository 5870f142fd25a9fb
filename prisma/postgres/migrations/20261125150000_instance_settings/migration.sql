-- CreateTable
CREATE TABLE "InstanceSetting" (
    "name" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "InstanceSetting_pkey" PRIMARY KEY ("name")
);
