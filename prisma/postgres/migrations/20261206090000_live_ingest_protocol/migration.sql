-- AlterTable
ALTER TABLE "LiveStream" ADD COLUMN "ingestProtocol" TEXT;
