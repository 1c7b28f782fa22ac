import type { KeySource } from '../../src-main/core/contract/contract.js';

/** Where a key comes from, said in Settings beside it: "From the environment (CAPTURE_DESK_API_KEY), not stored." */
export function keySourceText(source: KeySource, state: 'set' | 'not set' | 'unknown'): string {
  switch (source.from) {
    case 'keychain':
      if (state === 'unknown') return 'Kept in the system keychain, which cannot be used now (see above).';
      return state === 'set' ? 'Stored in the system keychain.' : 'Saving stores it in the system keychain.';
    case 'environment':
      return `From the environment (${source.name ?? 'a variable'}), not stored: held in memory until serve stops.`;
    case 'flag':
      return `From the command line (${source.name ?? 'a flag'}), not stored: held in memory until serve stops.`;
    case 'file':
      return `From the file ${source.name ?? '(a key file)'}, not stored: held in memory until serve stops.`;
    case 'session':
      return state === 'set'
        ? 'Set here for this session only, not stored: held in memory until serve stops.'
        : 'Cleared for this session; a key saved here is held in memory until serve stops, not stored.';
  }
}
