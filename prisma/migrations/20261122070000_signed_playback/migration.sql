-- CreateTable
CREATE TABLE "SigningKey" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "publicKeyPem" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "PlaybackRestriction" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "allowedDomainsJson" TEXT NOT NULL DEFAULT '[]',
    "allowNoReferrer" BOOLEAN NOT NULL DEFAULT false,
    "allowNoUserAgent" BOOLEAN NOT NULL DEFAULT true,
    "allowHighRiskUserAgent" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "SigningKey_createdAt_id_idx" ON "SigningKey"("createdAt", "id");

-- CreateIndex
CREATE INDEX "PlaybackRestriction_createdAt_id_idx" ON "PlaybackRestriction"("createdAt", "id");
