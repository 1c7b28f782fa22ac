/** The user manual's pages (resources/manual/*.md), as the core hands them to a UI. */
import { z } from 'zod';

/** A page's name is its file name without `.md`: lower-case words joined by dashes, nothing that could climb out of the folder. */
export const ManualPageName = z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'a manual page name is lower-case words joined by dashes').max(80);

export const ManualEntry = z.object({ name: ManualPageName, title: z.string() });
export type ManualEntry = z.infer<typeof ManualEntry>;

/** The page list in the order the manual's own index page lists them, the index first. */
export const ManualIndex = z.object({ pages: z.array(ManualEntry) });
export type ManualIndex = z.infer<typeof ManualIndex>;

export const ManualPage = z.object({
  name: ManualPageName,
  title: z.string(),
  /** The page's markdown as written; the UI renders it (and escapes everything in it). */
  markdown: z.string(),
  /**
   * The pictures the page shows, by the path written in it (`../readme/x.png`), as data: URLs: the
   * window may load nothing from disk or the network, and this works the same over both transports.
   */
  images: z.record(z.string(), z.string()),
});
export type ManualPage = z.infer<typeof ManualPage>;
