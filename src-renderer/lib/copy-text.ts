/**
 * Copies `text`; true if it reached the clipboard. navigator.clipboard exists only in secure
 * contexts (https, localhost, Electron), so a browser shell opened over http from another machine
 * falls back to selecting the text in `field` and the old copy command; if that is refused too,
 * the text stays selected for the user to copy with the keyboard.
 */
export async function copyText(text: string, field: HTMLTextAreaElement | HTMLInputElement): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // Refused (no permission, page not focused): fall through to selecting the text.
  }
  field.focus();
  field.select();
  try {
    return document.execCommand('copy');
  } catch {
    return false;
  }
}
