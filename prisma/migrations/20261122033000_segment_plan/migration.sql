-- AlterTable
ALTER TABLE "Asset" ADD COLUMN "planJson" TEXT;
