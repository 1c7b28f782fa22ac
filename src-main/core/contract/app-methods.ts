/** The app itself: what it is, its diagnostics, its settings, its keys and "Test connection". */
import { z } from 'zod';
import { AppInfo, ConnectionCheck, KeyKind, KeyStatus, Settings } from './app-schema.js';
import { Diagnostics } from './diagnostics-schema.js';
import { none } from './method-args.js';

export const appMethods = {
  'app.info': { input: none, output: AppInfo },
  /** Versions, OS, paths, devices, keychain and queue state for a bug report; never a key. */
  'app.diagnostics': { input: none, output: Diagnostics },
  'settings.get': { input: none, output: Settings },
  'settings.set': { input: Settings.partial().strict(), output: Settings },
  'keys.status': { input: none, output: KeyStatus },
  /** "Is this talking to my project?": key, project id, management API and ingestion service, each said plainly. */
  'project.check': { input: none, output: ConnectionCheck },
  /** The only way a key enters: it goes to the OS keychain and never comes back out to a UI. */
  'keys.set': { input: z.object({ kind: KeyKind, key: z.string().min(1).max(512) }).strict(), output: KeyStatus },
  'keys.clear': { input: z.object({ kind: KeyKind }).strict(), output: KeyStatus },
} as const;
