/** C0 control characters and DEL: never useful in a statistic's value, and PostgreSQL refuses NUL in text. */
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;

export function withoutControlCharacters(text: string): string {
  return text.replace(CONTROL_CHARACTERS, "");
}

export function hasControlCharacters(text: string): boolean {
  CONTROL_CHARACTERS.lastIndex = 0;
  return CONTROL_CHARACTERS.test(text);
}
