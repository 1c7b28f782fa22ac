import type { Clock } from '../core/clock.js';
import type { Category } from '../core/contract/contract.js';
import type { EventBus } from '../core/event-bus.js';
import type { Logger } from '../core/log.js';
import type { SampleStore } from '../core/samples/sample-store.js';
import type { BaudBook } from '../core/serial/baud/baud-memory.js';
import type { SerialOpener } from '../core/serial/byte-link.js';

/** What `record serial` asks of a streaming board's take, whatever the board speaks. */
export interface RecordLinesOptions {
  store: SampleStore;
  log: Logger;
  opener: SerialOpener;
  clock: Clock;
  bus: EventBus;
  path: string;
  /** 'auto': found from the board's output (the remembered rate first), then remembered. */
  baudRate: number | 'auto';
  bauds?: BaudBook;
  frequencyHz: number | null;
  axes: string[] | null;
  units: string[] | null;
  lengthMs: number;
  label: string | null;
  category: Category;
  metadata: Record<string, string>;
  hmacKey?: string | undefined;
  deviceName: string;
  /** --data-dir as given, for the command the person is told to run next. */
  dataDirFlag?: string | undefined;
  /** What the board speaks: told from the stream ('auto'), or forced. Default 'lines'. */
  protocol?: 'auto' | 'lines' | 'nordic';
}
