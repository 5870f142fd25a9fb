// Emails are compared case-insensitively: stored trimmed and lower-cased.
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

export const MIN_PASSWORD_LENGTH = 8;

// The same rules for the first-run screen, the CLI and any later "add user" form.
export const userInputProblems = ({ email, password }: { email: string; password: string }): string[] => {
  const problems: string[] = [];
  if (!/^[^\s@]+@[^\s@]+$/.test(normalizeEmail(email))) problems.push('email: must be an email address');
  if (password.length < MIN_PASSWORD_LENGTH) problems.push(`password: must be at least ${MIN_PASSWORD_LENGTH} characters`);
  return problems;
};
