import type { z } from 'zod';

// Turns zod issues into Mux-style messages that name the offending field, e.g.
// `playback_policies[0]: Invalid option: expected one of "public"|"signed"`.
export const formatIssuePath = (path: readonly PropertyKey[]): string =>
  path
    .map((segment, index) => {
      if (typeof segment === 'number') return `[${segment}]`;
      return index === 0 ? String(segment) : `.${String(segment)}`;
    })
    .join('');

export const zodIssueMessages = (error: z.ZodError, location?: string): string[] =>
  error.issues.map((issue) => {
    const field = formatIssuePath(issue.path);
    const prefix = field || location || 'body';
    return `${prefix}: ${issue.message}`;
  });
