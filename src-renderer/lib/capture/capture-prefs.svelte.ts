import type { Category } from '../../../src-main/core/contract/contract.js';
import { labelProblem } from '../../../src-main/core/contract/label-rule.js';

export const MAX_RECENT_LABELS = 9;
export const MAX_EVENT_NAMES = 9;
const STORAGE_KEY = 'capture-desk.capture-prefs.v1';

/** localStorage's part that is used (typed here: tests run this file under Node). */
type PrefsStorage = { getItem(key: string): string | null; setItem(key: string, value: string): void };

export interface MetadataEntry {
  key: string;
  value: string;
}

interface Stored {
  label: string;
  recentLabels: string[];
  category: Category;
  seconds: string;
  countdownS: number;
  metadata: MetadataEntry[];
  eventNames: string[];
  /** Off: captures stay local for review (crop, split, discard) and are queued from the Samples view. */
  uploadWhenSaved: boolean;
}

const DEFAULTS: Stored = {
  label: '',
  recentLabels: [],
  category: 'training',
  seconds: '10',
  countdownS: 0,
  metadata: [],
  // Empty: a digit pressed while recording marks only events the person named.
  eventNames: [],
  uploadWhenSaved: true,
};

/** What earlier versions put in the field unasked; a stored list equal to it was never typed. */
const OLD_DEFAULT_EVENT_NAMES = ['event'];

/**
 * What the person recording sets once and keeps for the afternoon: label, category, length,
 * countdown, metadata (subject, board, location) and event names. Kept in localStorage so a
 * reload or a restart of the browser shell does not make them type it all again.
 */
export class CapturePrefs {
  label = $state(DEFAULTS.label);
  recentLabels = $state<string[]>([]);
  category = $state<Category>(DEFAULTS.category);
  seconds = $state(DEFAULTS.seconds);
  countdownS = $state(DEFAULTS.countdownS);
  metadata = $state<MetadataEntry[]>([]);
  eventNames = $state<string[]>([...DEFAULTS.eventNames]);
  uploadWhenSaved = $state(DEFAULTS.uploadWhenSaved);

  constructor(private readonly storage: PrefsStorage | null = (globalThis as { localStorage?: PrefsStorage }).localStorage ?? null) {
    const saved = this.#load();
    this.label = saved.label;
    this.recentLabels = saved.recentLabels;
    this.category = saved.category;
    this.seconds = saved.seconds;
    this.countdownS = saved.countdownS;
    this.metadata = saved.metadata;
    this.eventNames = saved.eventNames;
    this.uploadWhenSaved = saved.uploadWhenSaved;
  }

  /** The metadata to send: entries with a key, trimmed; a repeated key keeps its last value. */
  get metadataObject(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const { key, value } of this.metadata) if (key.trim()) out[key.trim()] = value.trim();
    return out;
  }

  /** Length in ms, null for "until stopped"; throws a message the user can act on. */
  lengthMs(): number | null {
    const t = this.seconds.trim();
    if (t === '') return null;
    const s = Number(t);
    if (!(s > 0) || !Number.isFinite(s)) throw new Error(`Length "${t}" is not a number of seconds above 0; leave it empty to record until you press Stop.`);
    return Math.round(s * 1000);
  }

  /** The label to record with, null for unlabeled (an empty or blank field); throws a message the user can act on. */
  labelToSend(): string | null {
    const l = this.label.trim();
    if (l === '') return null;
    const problem = labelProblem(l);
    if (problem) throw new Error(problem);
    return l;
  }

  /** A label that was just recorded moves to the front of the recent ones (digit 1). */
  remember(label: string): void {
    if (!label) return;
    this.recentLabels = [label, ...this.recentLabels.filter((l) => l !== label)].slice(0, MAX_RECENT_LABELS);
    this.save();
  }

  save(): void {
    const data: Stored = {
      label: this.label,
      recentLabels: this.recentLabels,
      category: this.category,
      seconds: this.seconds,
      countdownS: this.countdownS,
      metadata: this.metadata.map((m) => ({ ...m })),
      eventNames: this.eventNames,
      uploadWhenSaved: this.uploadWhenSaved,
    };
    try {
      this.storage?.setItem(STORAGE_KEY, JSON.stringify(data));
    } catch {
      // A full or disabled storage only costs the convenience of remembering; recording goes on.
    }
  }

  #load(): Stored {
    try {
      const raw = this.storage?.getItem(STORAGE_KEY);
      if (!raw) return { ...DEFAULTS, eventNames: [...DEFAULTS.eventNames] };
      const v = JSON.parse(raw) as Partial<Stored>;
      const strings = (a: unknown, max: number) => (Array.isArray(a) ? a.filter((x): x is string => typeof x === 'string').slice(0, max) : []);
      return {
        label: typeof v.label === 'string' ? v.label : DEFAULTS.label,
        recentLabels: strings(v.recentLabels, MAX_RECENT_LABELS),
        category: (['training', 'validation', 'testing', 'post-processing', 'split'] as const).find((c) => c === v.category) ?? DEFAULTS.category,
        seconds: typeof v.seconds === 'string' ? v.seconds : DEFAULTS.seconds,
        countdownS: typeof v.countdownS === 'number' && v.countdownS >= 0 && v.countdownS <= 10 ? v.countdownS : 0,
        metadata: Array.isArray(v.metadata) ? v.metadata.filter((m) => m && typeof m.key === 'string' && typeof m.value === 'string').slice(0, 50) : [],
        eventNames: eventNamesOf(strings(v.eventNames, MAX_EVENT_NAMES)),
        uploadWhenSaved: typeof v.uploadWhenSaved === 'boolean' ? v.uploadWhenSaved : DEFAULTS.uploadWhenSaved,
      };
    } catch {
      return { ...DEFAULTS, eventNames: [...DEFAULTS.eventNames] }; // unreadable: start fresh rather than not at all
    }
  }
}

function eventNamesOf(stored: string[]): string[] {
  return stored.length === OLD_DEFAULT_EVENT_NAMES.length && stored.every((n, i) => n === OLD_DEFAULT_EVENT_NAMES[i]) ? [] : stored;
}
