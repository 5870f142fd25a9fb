-- CreateTable
CREATE TABLE "SimulcastTarget" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "liveStreamId" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "streamKey" TEXT,
    "passthrough" TEXT,
    "status" TEXT NOT NULL DEFAULT 'idle',
    "errorSeverity" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "SimulcastTarget_liveStreamId_fkey" FOREIGN KEY ("liveStreamId") REFERENCES "LiveStream" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "SimulcastTarget_liveStreamId_idx" ON "SimulcastTarget"("liveStreamId");
