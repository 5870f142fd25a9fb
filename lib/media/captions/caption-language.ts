// Which language a generated-captions request is transcribed in, given what the engine knows.
// `auto` cannot be detected by a single-language engine: it is transcribed in that language and
// the track reports it. Anything else the engine does not know is refused with a message naming
// what it does know, rather than producing captions in the wrong language.

export type CaptionLanguage = { ok: true; transcribeAs: string; languageCode: string } | { ok: false; message: string };

const primarySubtag = (code: string) => code.split('-', 1)[0]!.toLowerCase();

const displayName = (code: string): string => {
  try {
    const name = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' }).of(code);
    return name && name !== code ? `${name} ("${code}")` : `"${code}"`;
  } catch {
    return `"${code}"`;
  }
};

export const resolveCaptionLanguage = (requested: string, engineLanguages: readonly string[]): CaptionLanguage => {
  const [only] = engineLanguages;
  if (requested === 'auto' && engineLanguages.length === 1 && only) return { ok: true, transcribeAs: only, languageCode: only };
  const primary = primarySubtag(requested);
  if (requested !== 'auto' && engineLanguages.includes(primary)) return { ok: true, transcribeAs: primary, languageCode: requested };
  const accepted = [...engineLanguages.flatMap((code) => [`"${code}"`, `"${code}-…"`]), ...(engineLanguages.length === 1 ? ['"auto"'] : [])];
  const listed = `${accepted.slice(0, -1).join(', ')} or ${accepted.at(-1)}`;
  return {
    ok: false,
    message:
      `Auto-generated captions on this server are available in ${engineLanguages.map(displayName).join(', ')} only (language_code ${listed}); ` +
      `${requested === 'auto' ? 'detecting the language ("auto")' : displayName(requested)} is not supported`,
  };
};
