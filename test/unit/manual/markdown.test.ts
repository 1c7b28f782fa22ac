// The manual's markdown renderer (src-renderer/lib/manual/markdown.ts): the subset the pages use,
// and that nothing a page says becomes markup the renderer did not write itself.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { escapeHtml, renderInline, renderMarkdown, slug } from '../../../src-renderer/lib/manual/markdown.js';

const PNG = 'data:image/png;base64,iVBORw0KGgo=';

/** The tags the renderer writes, with the attributes it writes, each value quoted: nothing else may appear. */
const OWN_TAG = /^<\/?(h[1-6]|p|ul|ol|li|pre|code|table|thead|tbody|tr|th|td|strong|em|a|img)( (id|tabindex|href|data-page|data-anchor|target|rel|src|alt|loading|scope|data-lang|class)="[^"<>]*")*>$/;
const foreignTags = (html: string) => (html.match(/<[^>]*>/g) ?? []).filter((t) => !OWN_TAG.test(t));

describe('markdown renderer: blocks', () => {
  it('renders headings with GitHub ids (prefixed), paragraphs joined over lines, and numbered duplicates', () => {
    const r = renderMarkdown('# Getting started\n\nOne line\nand the next.\n\n## First start: connect to your *project*\n\n## Install\n\n## Install\n', { idPrefix: 'm-' });
    expect(r.html).toBe(
      [
        '<h1 id="m-getting-started" tabindex="-1">Getting started</h1>',
        '<p>One line and the next.</p>',
        '<h2 id="m-first-start-connect-to-your-project" tabindex="-1">First start: connect to your <em>project</em></h2>',
        '<h2 id="m-install" tabindex="-1">Install</h2>',
        '<h2 id="m-install-1" tabindex="-1">Install</h2>',
      ].join('\n'),
    );
    expect(r.headings.map((h) => h.id)).toEqual(['getting-started', 'first-start-connect-to-your-project', 'install', 'install-1']);
  });

  it('takes a heading id from its text as GitHub does: code and link text kept, punctuation dropped', () => {
    expect(slug('The capture-desk command in an installed app')).toBe('the-capture-desk-command-in-an-installed-app');
    expect(renderMarkdown('## The `capture-desk` command in an installed app').headings[0]!.id).toBe('the-capture-desk-command-in-an-installed-app');
    expect(slug('Does the model get it right? (on this computer)')).toBe('does-the-model-get-it-right-on-this-computer');
  });

  it('renders lists with continuation lines, numbered lists, and a paragraph straight after a list', () => {
    const md = '- **One**: first\n  goes on\n- Two\n\n1. a\n2. b\nNot a list item.';
    expect(renderMarkdown(md).html).toBe('<ul><li><strong>One</strong>: first goes on</li><li>Two</li></ul>\n<ol><li>a</li><li>b</li></ol>\n<p>Not a list item.</p>');
  });

  it('keeps items separated by blank lines in one list', () => {
    expect(renderMarkdown('- a\n\n- b\n').html).toBe('<ul><li>a</li><li>b</li></ul>');
  });

  it('renders fenced code as written, escaped, with nothing inside read as markup', () => {
    const md = '```sh\nnpx capture-desk samples split <id> --auto   # **not bold**\n# not a heading\n```\nafter';
    expect(renderMarkdown(md).html).toBe('<pre data-lang="sh"><code>npx capture-desk samples split &lt;id&gt; --auto   # **not bold**\n# not a heading</code></pre>\n<p>after</p>');
  });

  it('renders tables with header cells and escaped bars', () => {
    const md = '| flag | what |\n|---|---|\n| `--host ADDR` | a \\| b |\n| x | **y** |';
    expect(renderMarkdown(md).html).toBe(
      '<table><thead><tr><th scope="col">flag</th><th scope="col">what</th></tr></thead><tbody><tr><td><code>--host ADDR</code></td><td>a | b</td></tr><tr><td>x</td><td><strong>y</strong></td></tr></tbody></table>',
    );
  });
});

describe('markdown renderer: inline', () => {
  it('renders code, bold, italic', () => {
    expect(renderInline('a `b*c*` **d** *e* f')).toBe('a <code>b*c*</code> <strong>d</strong> <em>e</em> f');
  });

  it('makes links to other pages and headings in-app links, https links outside ones, and other targets plain text', () => {
    expect(renderInline('[Nordic boards](nordic-boards.md)')).toBe('<a href="?manual=nordic-boards" data-page="nordic-boards">Nordic boards</a>');
    expect(renderInline('[First start](getting-started.md#first-start-connect-to-your-project)')).toBe(
      '<a href="?manual=getting-started&at=first-start-connect-to-your-project" data-page="getting-started" data-anchor="first-start-connect-to-your-project">First start</a>',
    );
    expect(renderInline('[below](#install)')).toBe('<a href="?manual-at=install" data-anchor="install">below</a>');
    expect(renderInline('[axe-core](https://github.com/dequelabs/axe-core)')).toBe('<a href="https://github.com/dequelabs/axe-core" target="_blank" rel="noopener noreferrer">axe-core</a>');
    expect(renderInline('[the rule](../linux/99-capture-desk.rules)')).toBe('the rule');
    expect(renderInline('[x](http://plain.example/)')).toBe('x');
  });

  it('shows pictures only from the data: URLs the core sent, else says what is missing', () => {
    expect(renderInline('![The view](../readme/a.png)', { '../readme/a.png': PNG })).toBe(`<img src="${PNG}" alt="The view" loading="lazy">`);
    expect(renderInline('![The view](../readme/b.png)', { '../readme/a.png': PNG })).toBe('<em class="missing-picture">[picture: The view]</em>');
    // Something else under a picture's path is not put into src.
    expect(renderInline('![x](a.png)', { 'a.png': 'javascript:alert(1)' })).toBe('<em class="missing-picture">[picture: x]</em>');
    expect(renderInline('![x](a.png)', { 'a.png': 'data:image/svg+xml;base64,PHN2Zz4=' })).toBe('<em class="missing-picture">[picture: x]</em>');
  });
});

describe('markdown renderer: escaping', () => {
  it('escapes the five HTML characters', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });

  it('turns HTML in a page into text, in every place text goes', () => {
    const evil = '<img src=x onerror=alert(1)>';
    const md = [
      `# ${evil}`,
      '',
      `${evil} **${evil}** *${evil}* \`${evil}\``,
      '',
      `- ${evil}`,
      '',
      `| ${evil} |`,
      '|---|',
      `| ${evil} |`,
      '',
      `[${evil}](page.md)`,
      '',
      `![${evil}](a.png)`,
      '',
      '<script>alert(1)</script>',
      '',
      '```',
      '</code></pre><script>alert(1)</script>',
      '```',
    ].join('\n');
    const { html } = renderMarkdown(md, { images: { 'a.png': PNG } });
    expect(foreignTags(html)).toEqual([]);
    expect(html).not.toMatch(/<(img src=x|script)/);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;/code&gt;&lt;/pre&gt;');
  });

  it('cannot be talked into an attribute: quotes in link text, picture alt and heading ids stay escaped', () => {
    expect(renderInline('![a" onerror="alert(1)](p.png)', { 'p.png': PNG })).toBe(`<img src="${PNG}" alt="a&quot; onerror=&quot;alert(1)" loading="lazy">`);
    expect(renderInline('[x](page.md#a"b)')).toBe('x'); // not an anchor the renderer makes: plain text
    expect(renderMarkdown('# a"b').html).toBe('<h1 id="ab" tabindex="-1">a&quot;b</h1>');
    expect(renderInline('[x](javascript:alert(1))')).toBe('x)');
  });

  it('leaves no tag in any page of the manual but the ones it writes', () => {
    const dir = new URL('../../../resources/manual/', import.meta.url);
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.md'))) {
      const { html } = renderMarkdown(readFileSync(new URL(file, dir), 'utf8'), { images: { '../readme/x.png': PNG } });
      expect(foreignTags(html), file).toEqual([]);
    }
  });
});
