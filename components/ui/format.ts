// Display helpers shared by the tables.

export const formatDuration = (seconds: number | undefined): string => {
  if (seconds === undefined) return '—';
  const total = Math.round(seconds);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const secs = String(total % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${secs}` : `${minutes}:${secs}`;
};

/** What a secret (a stream key) shows as until it is revealed. */
export const SECRET_MASK = '•'.repeat(24);

// created_at is a string of Unix seconds, as in Mux's API.
export const formatUnixSeconds = (value: string): string => new Date(Number(value) * 1000).toLocaleString();

export const formatIso = (value: string | null): string => (value ? new Date(value).toLocaleString() : 'never');

export const formatBytes = (bytes: number): string => {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
};
