/** C0 control characters and DEL: never useful in a statistic's value, and PostgreSQL refuses NUL in text. */
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;

/**
 * Lone UTF-16 surrogates (half of an emoji, sent that way or cut in two): no encoding
 * stores one, and the database would hand back U+FFFD for what the dictionary knows as
 * the surrogate. They become U+FFFD here, before any value is interned or stored.
 */
const LONE_SURROGATES = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** The text with every lone surrogate as U+FFFD (what a UTF-8 encoder writes for one). */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATES, "\ufffd");
}

/** The text as a statistic's value is stored: no control characters, lone surrogates as U+FFFD. */
export function storableText(text: string): string {
  return wellFormed(text.replace(CONTROL_CHARACTERS, ""));
}

export function hasControlCharacters(text: string): boolean {
  CONTROL_CHARACTERS.lastIndex = 0;
  return CONTROL_CHARACTERS.test(text);
}
