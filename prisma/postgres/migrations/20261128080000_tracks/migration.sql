-- CreateTable
CREATE TABLE "Track" (
    "id" TEXT NOT NULL,
    "assetId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'preparing',
    "name" TEXT NOT NULL,
    "languageCode" TEXT,
    "primary" BOOLEAN NOT NULL DEFAULT false,
    "sourceStreamIndex" INTEGER,
    "durationSeconds" DOUBLE PRECISION,
    "maxChannels" INTEGER,
    "maxChannelLayout" TEXT,
    "textType" TEXT,
    "textSource" TEXT,
    "closedCaptions" BOOLEAN NOT NULL DEFAULT false,
    "sourceUrl" TEXT,
    "sourceTrackId" TEXT,
    "passthrough" TEXT,
    "errorType" TEXT,
    "errorMessagesJson" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Track_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Track_assetId_createdAt_idx" ON "Track"("assetId", "createdAt");

-- CreateIndex
CREATE INDEX "Track_status_idx" ON "Track"("status");

-- AddForeignKey
ALTER TABLE "Track" ADD CONSTRAINT "Track_assetId_fkey" FOREIGN KEY ("assetId") REFERENCES "Asset"("id") ON DELETE CASCADE ON UPDATE CASCADE;
