-- CreateTable
CREATE TABLE "Track" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "assetId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'preparing',
    "name" TEXT NOT NULL,
    "languageCode" TEXT,
    "primary" BOOLEAN NOT NULL DEFAULT false,
    "sourceStreamIndex" INTEGER,
    "durationSeconds" REAL,
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
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Track_assetId_fkey" FOREIGN KEY ("assetId") REFERENCES "Asset" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "Track_assetId_createdAt_idx" ON "Track"("assetId", "createdAt");

-- CreateIndex
CREATE INDEX "Track_status_idx" ON "Track"("status");
