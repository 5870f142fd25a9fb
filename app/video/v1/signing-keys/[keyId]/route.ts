// The older "URL signing keys" path (still used by mux-python): same keys, same shapes.
export { DELETE, GET } from '@/app/system/v1/signing-keys/[keyId]/route';

export const dynamic = 'force-dynamic';
