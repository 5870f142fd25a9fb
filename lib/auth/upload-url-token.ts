import { errors, jwtVerify, SignJWT } from 'jose';

// The `token` query parameter of an upload URL: an HS256 JWT shaped like Mux's own
// (`aud: "du"`, `sub: <upload id>`, `exp: created + timeout`), signed with this installation's
// upload-URL key. It makes the URL unguessable and bound to one upload; whether the upload can
// still take bytes is decided from the database, not from the token.

const AUDIENCE = 'du';

export const signUploadUrlToken = async ({
  key,
  uploadId,
  issuedAt,
  expiresAt,
}: {
  key: Uint8Array;
  uploadId: string;
  issuedAt: Date;
  expiresAt: Date;
}): Promise<string> =>
  new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setAudience(AUDIENCE)
    .setSubject(uploadId)
    .setIssuedAt(Math.floor(issuedAt.getTime() / 1000))
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .sign(key);

export type UploadTokenCheck = 'valid' | 'expired' | 'invalid';

// `expired` is only returned for a token whose signature and claims are otherwise right, so the
// caller can answer "this upload timed out" rather than "this URL is wrong".
export const checkUploadUrlToken = async ({
  key,
  token,
  uploadId,
}: {
  key: Uint8Array;
  token: string | null;
  uploadId: string;
}): Promise<UploadTokenCheck> => {
  if (!token) return 'invalid';
  try {
    await jwtVerify(token, key, { audience: AUDIENCE, subject: uploadId, algorithms: ['HS256'] });
    return 'valid';
  } catch (error) {
    if (error instanceof errors.JWTExpired && error.payload.sub === uploadId && error.payload.aud === AUDIENCE) {
      return 'expired';
    }
    return 'invalid';
  }
};
