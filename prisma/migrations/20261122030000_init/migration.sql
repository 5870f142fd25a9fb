-- CreateTable
CREATE TABLE "AccessToken" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "secretHash" TEXT NOT NULL,
    "permission" TEXT NOT NULL DEFAULT 'read_write',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" DATETIME,
    "revokedAt" DATETIME
);

-- CreateTable
CREATE TABLE "Asset" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "status" TEXT NOT NULL,
    "progressState" TEXT NOT NULL DEFAULT 'ingesting',
    "encodingTier" TEXT NOT NULL,
    "maxResolutionTier" TEXT NOT NULL DEFAULT '1080p',
    "mp4Support" TEXT NOT NULL DEFAULT 'none',
    "masterAccess" TEXT NOT NULL DEFAULT 'none',
    "ingestType" TEXT NOT NULL DEFAULT 'on_demand_url',
    "inputsJson" TEXT NOT NULL,
    "passthrough" TEXT,
    "metaJson" TEXT,
    "test" BOOLEAN NOT NULL DEFAULT false,
    "uploadId" TEXT,
    "durationSeconds" REAL,
    "aspectRatio" TEXT,
    "maxFrameRate" REAL,
    "resolutionTier" TEXT,
    "tracksJson" TEXT,
    "probeJson" TEXT,
    "sourceBytes" BIGINT,
    "errorType" TEXT,
    "errorMessagesJson" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "readyAt" DATETIME
);

-- CreateTable
CREATE TABLE "PlaybackId" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "assetId" TEXT NOT NULL,
    "policy" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "PlaybackId_assetId_fkey" FOREIGN KEY ("assetId") REFERENCES "Asset" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Job" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "payloadJson" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "maxAttempts" INTEGER NOT NULL DEFAULT 3,
    "runAfter" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lockedAt" DATETIME,
    "lockedBy" TEXT,
    "lastError" TEXT,
    "dedupeKey" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "Asset_createdAt_id_idx" ON "Asset"("createdAt", "id");

-- CreateIndex
CREATE INDEX "Asset_uploadId_idx" ON "Asset"("uploadId");

-- CreateIndex
CREATE INDEX "PlaybackId_assetId_idx" ON "PlaybackId"("assetId");

-- CreateIndex
CREATE UNIQUE INDEX "Job_dedupeKey_key" ON "Job"("dedupeKey");

-- CreateIndex
CREATE INDEX "Job_status_runAfter_idx" ON "Job"("status", "runAfter");
