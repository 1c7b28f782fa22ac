/** The app's top-level views, in tab order; `key` is the digit of the Alt+digit shortcut. */
export const VIEWS = [
  { id: 'live', label: 'Live', key: '1' },
  { id: 'samples', label: 'Samples', key: '2' },
  { id: 'settings', label: 'Settings', key: '3' },
] as const;

export type ViewId = (typeof VIEWS)[number]['id'];
