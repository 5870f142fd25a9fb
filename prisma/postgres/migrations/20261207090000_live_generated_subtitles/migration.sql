-- AlterTable
ALTER TABLE "LiveStream" ADD COLUMN "generatedSubtitlesJson" TEXT;
