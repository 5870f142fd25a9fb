// Mirrors the server actions' result in app/(auth)/actions.ts; components never import app code.
export type AuthFormState = { error?: string; email?: string };
export type AuthFormAction = (state: AuthFormState, form: FormData) => Promise<AuthFormState>;
