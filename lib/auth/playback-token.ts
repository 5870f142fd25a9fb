import { decodeJwt, decodeProtectedHeader, errors, importSPKI, jwtVerify, type JWTPayload } from 'jose';

// Verifies the `token` of a signed playback URL the way Mux does: RS256 only, signed with one of
// this installation's signing keys (`kid` in the header, as older SDKs put it, or in the claims,
// as mux-node v8+ does), `sub` = the playback ID, `aud` = the kind of resource, `exp` required.

export type PlaybackAudience = 'v' | 't' | 'g' | 's';

export type TokenCheck = { ok: true; claims: JWTPayload } | { ok: false; reason: string };

const AUDIENCE_NAMES: Record<PlaybackAudience, string> = { v: 'video', t: 'thumbnail', g: 'animated', s: 'storyboard' };

const claimProblem = (error: errors.JWTClaimValidationFailed, audience: PlaybackAudience): string => {
  if (error.claim === 'aud') return `The token is not for ${AUDIENCE_NAMES[audience]} requests (its aud claim must be "${audience}")`;
  if (error.claim === 'sub') return 'The token was signed for a different playback ID';
  if (error.claim === 'exp') return 'The token has no expiry (exp claim)';
  return `The token's ${error.claim} claim is invalid`;
};

export const verifyPlaybackToken = async ({
  token,
  playbackId,
  audience,
  findPublicKey,
}: {
  token: string;
  playbackId: string;
  audience: PlaybackAudience;
  // The PEM (SPKI) public key of a signing key, or null if there is no such key (any more).
  findPublicKey: (keyId: string) => Promise<string | null>;
}): Promise<TokenCheck> => {
  let keyId: unknown;
  try {
    const header = decodeProtectedHeader(token);
    if (header.alg !== 'RS256') return { ok: false, reason: `Tokens must be signed with RS256 (this one says ${String(header.alg)})` };
    keyId = header.kid ?? decodeJwt(token).kid;
  } catch {
    return { ok: false, reason: 'The token is not a well-formed JWT' };
  }
  if (typeof keyId !== 'string' || keyId === '') return { ok: false, reason: 'The token names no signing key (kid)' };
  const pem = await findPublicKey(keyId);
  if (!pem) return { ok: false, reason: `Signing key ${keyId} does not exist or was deleted` };
  try {
    const { payload } = await jwtVerify(token, await importSPKI(pem, 'RS256'), {
      algorithms: ['RS256'],
      audience,
      subject: playbackId,
      requiredClaims: ['exp', 'sub', 'aud'],
    });
    return { ok: true, claims: payload };
  } catch (error) {
    if (error instanceof errors.JWTExpired) return { ok: false, reason: 'The token has expired' };
    if (error instanceof errors.JWTClaimValidationFailed) return { ok: false, reason: claimProblem(error, audience) };
    if (error instanceof errors.JWSSignatureVerificationFailed) return { ok: false, reason: 'The token signature is invalid' };
    return { ok: false, reason: 'The token could not be verified' };
  }
};
