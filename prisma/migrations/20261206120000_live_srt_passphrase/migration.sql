-- AlterTable
ALTER TABLE "LiveStream" ADD COLUMN "srtPassphrase" TEXT;

-- Existing streams get an SRT passphrase too, as new ones do on create: 128 random bits as 32 hex
-- characters.
UPDATE "LiveStream" SET "srtPassphrase" = lower(hex(randomblob(16))) WHERE "srtPassphrase" IS NULL;
