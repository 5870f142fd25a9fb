'use client';

import { useState } from 'react';
import { Button } from './button';

export function CopyButton({ value, label = 'Copy' }: { value: string; label?: string }) {
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
    <Button variant="secondary" className="px-2 py-1 text-xs" onClick={copy} aria-label={`${label}: ${value}`}>
      {copied ? 'Copied' : label}
    </Button>
  );
}
