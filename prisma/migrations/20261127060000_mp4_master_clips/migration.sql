-- AlterTable
ALTER TABLE "Asset" ADD COLUMN "sourceAssetId" TEXT;
ALTER TABLE "Asset" ADD COLUMN "masterStatus" TEXT;
ALTER TABLE "Asset" ADD COLUMN "masterExpiresAt" DATETIME;

-- CreateTable
CREATE TABLE "StaticRendition" (
    "id" TEXT NOT NULL PRIMARY KEY,
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
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "StaticRendition_assetId_fkey" FOREIGN KEY ("assetId") REFERENCES "Asset" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "StaticRendition_status_idx" ON "StaticRendition"("status");

-- CreateIndex
CREATE UNIQUE INDEX "StaticRendition_assetId_name_key" ON "StaticRendition"("assetId", "name");

-- CreateIndex
CREATE INDEX "Asset_masterExpiresAt_idx" ON "Asset"("masterExpiresAt");
