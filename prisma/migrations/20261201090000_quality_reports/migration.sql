-- AlterTable
ALTER TABLE "Asset" ADD COLUMN "qualityReportJson" TEXT;
