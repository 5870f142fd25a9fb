-- CreateTable
CREATE TABLE "EncodedSegment" (
    "assetId" TEXT NOT NULL,
    "rendition" TEXT NOT NULL,
    "index" INTEGER NOT NULL,
    "bytes" INTEGER NOT NULL,
    "durationMs" INTEGER NOT NULL,

    CONSTRAINT "EncodedSegment_pkey" PRIMARY KEY ("assetId","rendition","index")
);

-- AddForeignKey
ALTER TABLE "EncodedSegment" ADD CONSTRAINT "EncodedSegment_assetId_fkey" FOREIGN KEY ("assetId") REFERENCES "Asset"("id") ON DELETE CASCADE ON UPDATE CASCADE;
