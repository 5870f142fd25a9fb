'use client';

import { useState } from 'react';
import { Button } from './button';

// `secret` keeps the value out of the button's accessible name (a stream key stays hidden from
// screen readers too until revealed).
export function CopyButton({ value, label = 'Copy', secret = false }: { value: string; label?: string; secret?: boolean }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    } catch {
      // Clipboard access can be refused (insecure origin); the value stays selectable on screen.
    }
  };
  return (
    <Button variant="secondary" className="px-2 py-1 text-xs" onClick={copy} aria-label={secret ? label : `${label}: ${value}`}>
      {copied ? 'Copied' : label}
    </Button>
  );
}
