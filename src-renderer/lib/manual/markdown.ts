/**
 * A markdown renderer for the manual's pages (resources/manual/*.md), written for the subset they
 * use: headings, paragraphs, lists (one level, numbered or not), fenced code, tables, and inline
 * code, bold, italic, links and pictures. Everything taken from a page is HTML-escaped; the only
 * markup in the result is what this file writes, so a page cannot put HTML, scripts or event
 * handlers into the window. Why not a package: marked or markdown-it would also pass a page's raw
 * HTML through unless told otherwise, and bring a sanitiser with them; the pages are ours, small
 * and plain, and 200 lines we test are less to trust.
 *
 * Links: `page.md#heading` becomes an in-app link (data-page, data-anchor) that the Manual view
 * follows itself; `https://…` opens outside (the desktop app's allowlist decides); any other target
 * (a source file, a folder) is shown as its text, since the window cannot open it.
 */

export interface RenderOptions {
  /** Pictures by the path written in the page: data: URLs from the core (manual.page). */
  images?: Record<string, string>;
  /** Prefix of every heading id, so a page's ids never collide with the rest of the window's. */
  idPrefix?: string;
}

export interface Rendered {
  html: string;
  /** The page's headings in order, with their ids (without the prefix). */
  headings: Array<{ level: number; text: string; id: string }>;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** GitHub's heading ids: lower case, punctuation dropped, spaces to dashes (`First start: x` → `first-start-x`). */
export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

/** A heading's text as GitHub reads it for its id: markup gone, link and code text kept. */
function plainText(md: string): string {
  return md.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '');
}

export function renderMarkdown(markdown: string, opts: RenderOptions = {}): Rendered {
  const prefix = opts.idPrefix ?? '';
  const images = opts.images ?? {};
  const headings: Rendered['headings'] = [];
  const used = new Map<string, number>();
  const out: string[] = [];
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  let i = 0;
  const inline = (s: string) => renderInline(s, images);

  while (i < lines.length) {
    const line = lines[i]!;
    if (/^\s*$/.test(line)) {
      i++;
      continue;
    }
    const fence = /^```(\S*)\s*$/.exec(line);
    if (fence) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !/^```\s*$/.test(lines[i]!)) body.push(lines[i++]!);
      i++; // the closing fence (or the end of the page)
      const lang = fence[1] ? ` data-lang="${escapeHtml(fence[1])}"` : '';
      out.push(`<pre${lang}><code>${escapeHtml(body.join('\n'))}</code></pre>`);
      continue;
    }
    const heading = /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading) {
      const level = heading[1]!.length;
      const text = heading[2]!;
      let id = slug(plainText(text));
      const n = used.get(id) ?? 0;
      used.set(id, n + 1);
      if (n > 0) id = `${id}-${n}`;
      headings.push({ level, text: plainText(text), id });
      out.push(`<h${level} id="${escapeHtml(prefix + id)}" tabindex="-1">${inline(text)}</h${level}>`);
      i++;
      continue;
    }
    if (/^\|.*\|\s*$/.test(line) && i + 1 < lines.length && /^\|[\s:|-]+\|\s*$/.test(lines[i + 1]!)) {
      const head = cells(line);
      i += 2;
      const rows: string[][] = [];
      while (i < lines.length && /^\|.*\|\s*$/.test(lines[i]!)) rows.push(cells(lines[i++]!));
      const th = head.map((c) => `<th scope="col">${inline(c)}</th>`).join('');
      const trs = rows.map((r) => `<tr>${r.map((c) => `<td>${inline(c)}</td>`).join('')}</tr>`).join('');
      out.push(`<table><thead><tr>${th}</tr></thead><tbody>${trs}</tbody></table>`);
      continue;
    }
    const item = /^(\s*)([-*]|\d+\.)\s+/.exec(line);
    if (item) {
      const ordered = /\d/.test(item[2]!);
      const items: string[] = [];
      while (i < lines.length) {
        const m = /^(\s*)([-*]|\d+\.)\s+(.*)$/.exec(lines[i]!);
        if (!m || /\d/.test(m[2]!) !== ordered) break;
        const text = [m[3]!];
        i++;
        // A list item goes on over lines indented under it, until a blank line or the next item.
        while (i < lines.length && /^\s+\S/.test(lines[i]!) && !/^\s*([-*]|\d+\.)\s+/.test(lines[i]!)) text.push(lines[i++]!.trim());
        items.push(`<li>${inline(text.join(' '))}</li>`);
        if (i < lines.length && /^\s*$/.test(lines[i]!) && i + 1 < lines.length && /^(\s*)([-*]|\d+\.)\s+/.test(lines[i + 1]!)) i++;
      }
      out.push(ordered ? `<ol>${items.join('')}</ol>` : `<ul>${items.join('')}</ul>`);
      continue;
    }
    // A paragraph: the lines up to a blank line or the start of another block.
    const para: string[] = [];
    while (i < lines.length && !/^\s*$/.test(lines[i]!) && !/^(```|#{1,6}\s|\s*([-*]|\d+\.)\s+)/.test(lines[i]!)) {
      if (para.length > 0 && /^\|.*\|\s*$/.test(lines[i]!)) break;
      para.push(lines[i++]!.trim());
    }
    out.push(`<p>${inline(para.join(' '))}</p>`);
  }
  return { html: out.join('\n'), headings };
}

/** A table row's cells; `\|` is a bar inside a cell. */
function cells(row: string): string[] {
  return row
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim().replace(/\\\|/g, '|'));
}

/**
 * Inline markup. Code spans are cut out first (nothing inside them is markup); every other piece of
 * text is escaped before it is wrapped.
 */
export function renderInline(text: string, images: Record<string, string> = {}): string {
  const parts = text.split(/(`+[^`]*?`+)/g);
  return parts
    .map((part, k) => {
      if (k % 2 === 1) return `<code>${escapeHtml(part.replace(/^`+|`+$/g, ''))}</code>`;
      return renderSpans(part, images);
    })
    .join('');
}

const SPAN = /(!?)\[([^\]]*)\]\(([^)\s]+)\)|\*\*([^*]+?)\*\*|\*([^*\s][^*]*?)\*/g;

function renderSpans(text: string, images: Record<string, string>): string {
  let out = '';
  let at = 0;
  for (const m of text.matchAll(SPAN)) {
    out += escapeHtml(text.slice(at, m.index));
    at = m.index + m[0].length;
    if (m[3] !== undefined) out += m[1] ? picture(m[2]!, m[3], images) : link(m[2]!, m[3], images);
    else if (m[4] !== undefined) out += `<strong>${renderSpans(m[4], images)}</strong>`;
    else out += `<em>${renderSpans(m[5]!, images)}</em>`;
  }
  return out + escapeHtml(text.slice(at));
}

/**
 * The href of an in-app link. The Manual view follows the click itself; the href is there so it is
 * a link (focusable, announced as one) and names where it goes. Not a `#fragment`: the window's
 * address keeps the open view there.
 */
export function manualHref(page: string, anchor?: string | null): string {
  return `?manual=${page}${anchor ? `&at=${anchor}` : ''}`;
}

function picture(alt: string, src: string, images: Record<string, string>): string {
  const data = images[src];
  // Only what the core read and typed as a picture; never a path or a URL the window would fetch.
  if (!data || !/^data:image\/(png|jpeg);base64,[A-Za-z0-9+/=]+$/.test(data)) return `<em class="missing-picture">[picture: ${escapeHtml(alt)}]</em>`;
  return `<img src="${data}" alt="${escapeHtml(alt)}" loading="lazy">`;
}

function link(text: string, target: string, images: Record<string, string>): string {
  const inner = renderSpans(text, images);
  if (/^https:\/\//.test(target)) return `<a href="${escapeHtml(target)}" target="_blank" rel="noopener noreferrer">${inner}</a>`;
  const page = /^([a-z0-9]+(?:-[a-z0-9]+)*)\.md(?:#([\w-]+))?$/.exec(target);
  const anchor = /^#([\w-]+)$/.exec(target);
  if (page) return `<a href="${manualHref(page[1]!, page[2])}" data-page="${page[1]}"${page[2] ? ` data-anchor="${page[2]}"` : ''}>${inner}</a>`;
  if (anchor) return `<a href="?manual-at=${anchor[1]}" data-anchor="${anchor[1]}">${inner}</a>`;
  return inner;
}
