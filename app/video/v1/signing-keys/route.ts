// The older "URL signing keys" path (still used by mux-python): same keys, same shapes.
export { GET, POST } from '@/app/system/v1/signing-keys/route';

export const dynamic = 'force-dynamic';
