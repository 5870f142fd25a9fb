-- AlterTable
ALTER TABLE "Asset" ADD COLUMN     "isLive" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "liveStreamId" TEXT,
ADD COLUMN     "recordingTimesJson" TEXT;

-- CreateTable
CREATE TABLE "LiveStream" (
    "id" TEXT NOT NULL,
    "streamKey" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'idle',
    "latencyMode" TEXT NOT NULL DEFAULT 'standard',
    "reconnectWindow" DOUBLE PRECISION NOT NULL DEFAULT 60,
    "maxContinuousDuration" INTEGER NOT NULL DEFAULT 43200,
    "useSlateForStandardLatency" BOOLEAN NOT NULL DEFAULT false,
    "reconnectSlateUrl" TEXT,
    "audioOnly" BOOLEAN NOT NULL DEFAULT false,
    "passthrough" TEXT,
    "metaJson" TEXT,
    "test" BOOLEAN NOT NULL DEFAULT false,
    "newAssetSettingsJson" TEXT,
    "activeAssetId" TEXT,
    "recentAssetIdsJson" TEXT NOT NULL DEFAULT '[]',
    "connectedAt" TIMESTAMP(3),
    "broadcastStartedAt" TIMESTAMP(3),
    "ingestNodeId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "LiveStream_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "LiveStreamPlaybackId" (
    "id" TEXT NOT NULL,
    "liveStreamId" TEXT NOT NULL,
    "policy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "LiveStreamPlaybackId_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "LiveStream_streamKey_key" ON "LiveStream"("streamKey");

-- CreateIndex
CREATE INDEX "LiveStream_createdAt_id_idx" ON "LiveStream"("createdAt", "id");

-- CreateIndex
CREATE INDEX "LiveStream_status_idx" ON "LiveStream"("status");

-- CreateIndex
CREATE INDEX "LiveStreamPlaybackId_liveStreamId_idx" ON "LiveStreamPlaybackId"("liveStreamId");

-- CreateIndex
CREATE INDEX "Asset_liveStreamId_idx" ON "Asset"("liveStreamId");

-- CreateIndex
CREATE INDEX "Asset_isLive_idx" ON "Asset"("isLive");

-- AddForeignKey
ALTER TABLE "LiveStreamPlaybackId" ADD CONSTRAINT "LiveStreamPlaybackId_liveStreamId_fkey" FOREIGN KEY ("liveStreamId") REFERENCES "LiveStream"("id") ON DELETE CASCADE ON UPDATE CASCADE;
