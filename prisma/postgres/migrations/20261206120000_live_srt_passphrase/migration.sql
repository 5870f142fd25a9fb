-- AlterTable
ALTER TABLE "LiveStream" ADD COLUMN "srtPassphrase" TEXT;

-- Existing streams get an SRT passphrase too, as new ones do on create: a random UUID's 32 hex
-- characters (gen_random_uuid draws from the strong random source; random() does not).
UPDATE "LiveStream" SET "srtPassphrase" = replace(gen_random_uuid()::text, '-', '') WHERE "srtPassphrase" IS NULL;
