/**
 * File names that can be written on Windows, macOS and Linux alike. Sample names come from
 * labels the user typed ("left/right", "tap?"), from files made on another OS, or from a
 * browser drop, so an export must not take them as written: on Windows `:*?"<>|` are refused,
 * CON or NUL.cbor name a device, and a trailing dot or space is silently dropped.
 */

/** Refused in a Windows file name, plus both separators (never a folder inside an export). */
const UNSAFE_CHARS = /[<>:"/\\|?*\u0000-\u001f\u007f]/g;

/** Device names Windows reserves with any extension (`nul.cbor` too); COM¹-COM³ as of Windows 11. */
const RESERVED = /^(con|prn|aux|nul|conin\$|conout\$|com[0-9¹²³]|lpt[0-9¹²³])$/i;

/** Room under every OS's 255-unit limit for a "-2" that tells apart two files of one name. */
const MAX_NAME_BYTES = 200;

/**
 * A name any OS accepts for `name`, keeping as much of it as it can: unsafe characters become
 * '_', trailing dots and spaces go, a leading dot (a hidden file, skipped by uploaders) and a
 * reserved device name get a '_' in front, and an over-long stem is shortened before its extension.
 */
export function portableFileName(name: string): string {
  let n = name.normalize('NFC').replace(UNSAFE_CHARS, '_').replace(/[. ]+$/, '');
  if (n.startsWith('.')) n = `_${n}`;
  if (n === '') return 'sample';
  const dot = n.lastIndexOf('.');
  // Only a short tail is an extension worth keeping whole; anything longer is shortened like the rest.
  const hasExt = dot > 0 && n.length - dot <= 16;
  let stem = hasExt ? n.slice(0, dot) : n;
  const ext = hasExt ? n.slice(dot) : '';
  // Windows judges a device name by what comes before the first dot, trailing spaces ignored.
  if (RESERVED.test(n.split('.')[0]!.trimEnd())) stem = `_${stem}`;
  while (Buffer.byteLength(stem + ext) > MAX_NAME_BYTES) stem = [...stem].slice(0, -1).join('');
  // Shortening can leave a dot or space at the very end again; before an extension they are fine.
  return (ext ? stem : stem.replace(/[. ]+$/, '')) + ext || 'sample';
}

/**
 * The key under which two names clash in one folder on the OSes we export for: Windows and macOS
 * ignore case, and macOS treats composed and decomposed accents as one name.
 */
export function nameClashKey(name: string): string {
  return name.normalize('NFC').toLowerCase();
}
