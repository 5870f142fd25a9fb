import { uploadBytes, uploadPreflight } from '@/lib/http/upload-data-plane';

export const dynamic = 'force-dynamic';

// PUT {BASE_URL}/upload/{UPLOAD_ID}?token=… – the file, whole or in Content-Range chunks (UpChunk
// can be told to use POST or PATCH instead, so those mean the same).
export const PUT = uploadBytes;
export const POST = uploadBytes;
export const PATCH = uploadBytes;
export const OPTIONS = uploadPreflight;
