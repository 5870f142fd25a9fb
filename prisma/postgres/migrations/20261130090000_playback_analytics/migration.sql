-- CreateTable
CREATE TABLE "PlaybackView" (
    "id" TEXT NOT NULL,
    "viewId" TEXT NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 0,
    "lastSequence" INTEGER NOT NULL DEFAULT 0,
    "closed" BOOLEAN NOT NULL DEFAULT false,
    "viewStart" TIMESTAMP(3) NOT NULL,
    "viewEnd" TIMESTAMP(3) NOT NULL,
    "lastBeaconAt" TIMESTAMP(3) NOT NULL,
    "playbackId" TEXT,
    "assetId" TEXT,
    "liveStreamId" TEXT,
    "videoId" TEXT,
    "videoTitle" TEXT,
    "viewerBrowser" TEXT,
    "viewerBrowserVersion" TEXT,
    "viewerOs" TEXT,
    "viewerOsVersion" TEXT,
    "viewerDeviceType" TEXT,
    "playerName" TEXT,
    "playerSoftware" TEXT,
    "muxViewerId" TEXT,
    "watchTimeMs" INTEGER NOT NULL DEFAULT 0,
    "playingTimeMs" INTEGER NOT NULL DEFAULT 0,
    "startupTimeMs" INTEGER,
    "rebufferCount" INTEGER NOT NULL DEFAULT 0,
    "rebufferDurationMs" INTEGER NOT NULL DEFAULT 0,
    "rebufferPercentage" DOUBLE PRECISION,
    "seekCount" INTEGER NOT NULL DEFAULT 0,
    "seekLatencyMs" DOUBLE PRECISION,
    "errorTypeId" INTEGER,
    "errorCode" TEXT,
    "playbackFailure" BOOLEAN NOT NULL DEFAULT false,
    "videoStartupFailure" BOOLEAN NOT NULL DEFAULT false,
    "exitBeforeVideoStart" BOOLEAN NOT NULL DEFAULT false,
    "stateJson" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "PlaybackView_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "PlaybackView_viewId_key" ON "PlaybackView"("viewId");

-- CreateIndex
CREATE INDEX "PlaybackView_viewEnd_idx" ON "PlaybackView"("viewEnd");

-- CreateIndex
CREATE INDEX "PlaybackView_closed_lastBeaconAt_idx" ON "PlaybackView"("closed", "lastBeaconAt");

-- CreateIndex
CREATE INDEX "PlaybackView_assetId_viewEnd_idx" ON "PlaybackView"("assetId", "viewEnd");

