-- AlterTable
ALTER TABLE "LiveStream" ADD COLUMN "generatedSubtitlesJson" TEXT;
ALTER TABLE "LiveStream" ADD COLUMN "embeddedSubtitlesJson" TEXT;
ALTER TABLE "LiveStream" ADD COLUMN "ingestNodeUrl" TEXT;
