-- CreateTable
CREATE TABLE "EncodedSegment" (
    "assetId" TEXT NOT NULL,
    "rendition" TEXT NOT NULL,
    "index" INTEGER NOT NULL,
    "bytes" INTEGER NOT NULL,
    "durationMs" INTEGER NOT NULL,

    PRIMARY KEY ("assetId", "rendition", "index"),
    CONSTRAINT "EncodedSegment_assetId_fkey" FOREIGN KEY ("assetId") REFERENCES "Asset" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
