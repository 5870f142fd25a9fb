-- AlterTable
ALTER TABLE "Asset" ADD COLUMN     "masterExpiresAt" TIMESTAMP(3),
ADD COLUMN     "masterStatus" TEXT,
ADD COLUMN     "sourceAssetId" TEXT;

-- CreateTable
CREATE TABLE "StaticRendition" (
    "id" TEXT NOT NULL,
    "assetId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "resolution" TEXT NOT NULL,
    "viaMp4Support" BOOLEAN NOT NULL DEFAULT false,
    "status" TEXT NOT NULL DEFAULT 'preparing',
    "width" INTEGER,
    "height" INTEGER,
    "bitrate" INTEGER,
    "fileSize" BIGINT,
    "passthrough" TEXT,
    "errorMessage" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "StaticRendition_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "StaticRendition_status_idx" ON "StaticRendition"("status");

-- CreateIndex
CREATE UNIQUE INDEX "StaticRendition_assetId_name_key" ON "StaticRendition"("assetId", "name");

-- CreateIndex
CREATE INDEX "Asset_masterExpiresAt_idx" ON "Asset"("masterExpiresAt");

-- AddForeignKey
ALTER TABLE "StaticRendition" ADD CONSTRAINT "StaticRendition_assetId_fkey" FOREIGN KEY ("assetId") REFERENCES "Asset"("id") ON DELETE CASCADE ON UPDATE CASCADE;
