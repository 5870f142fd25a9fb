-- CreateTable
CREATE TABLE "SimulcastTarget" (
    "id" TEXT NOT NULL,
    "liveStreamId" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "streamKey" TEXT,
    "passthrough" TEXT,
    "status" TEXT NOT NULL DEFAULT 'idle',
    "errorSeverity" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SimulcastTarget_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "SimulcastTarget_liveStreamId_idx" ON "SimulcastTarget"("liveStreamId");

-- AddForeignKey
ALTER TABLE "SimulcastTarget" ADD CONSTRAINT "SimulcastTarget_liveStreamId_fkey" FOREIGN KEY ("liveStreamId") REFERENCES "LiveStream"("id") ON DELETE CASCADE ON UPDATE CASCADE;
