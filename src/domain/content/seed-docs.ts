import type { Db } from '../../shared/db/db.js';
import { rewriteLinks, SlugCounter } from './markdown-anchors.js';
import { markdownToBlocks } from './markdown-blocks.js';
import { insertPost } from './posts-store.js';
import { sanitizeSlug } from './slugs.js';
import { insertTerm, setPostTerms } from './terms-store.js';

/** The parts of an OpenAPI 3 document the reference pages show. */
export interface OpenApiDocument {
  info?: { title?: string; description?: string; version?: string };
  tags?: { name: string; description?: string }[];
  paths?: Record<string, Record<string, OpenApiOperation>>;
}

interface OpenApiOperation {
  tags?: string[];
  summary?: string;
  description?: string;
  operationId?: string;
  parameters?: {
    name: string;
    in: string;
    required?: boolean;
    description?: string;
    schema?: { type?: string; enum?: unknown[]; default?: unknown };
  }[];
  responses?: Record<string, { description?: string }>;
}

/** One chapter of the manual: a `docs/*.md` file. */
export interface ManualChapter {
  /** The file name without `.md`: the page's slug. */
  slug: string;
  /** The file's `# ` title. */
  title: string;
  /** The markdown below the title. */
  body: string;
}

export interface DocsSource {
  /** The manual's chapters in reading order; each becomes a page under 使用手册 (/manual/). */
  chapters: ManualChapter[];
  /** The API's OpenAPI document; each tag becomes a reference page. */
  openapi?: OpenApiDocument;
}

/** A `docs/*.md` file as a chapter: its first `# ` heading is the title (else its name). */
export function manualChapter(slug: string, markdown: string): ManualChapter {
  const text = markdown.replace(/\r\n?/g, '\n');
  const m = /^# +(.+?)\s*$/m.exec(text);
  if (!m || text.slice(0, m.index).trim() !== '') return { slug, title: slug, body: text.trim() };
  return { slug, title: m[1]!, body: text.slice(m.index + m[0].length).trim() };
}

/**
 * A chapter's links as the site serves them: another chapter (`api.md#quota`) is its page
 * (`/manual/api/#quota`), the README the manual's own page; in-page anchors and web addresses
 * stay; a link to another file of the repository (`../src/x.ts`) keeps only its text.
 */
export function manualLinks(markdown: string, chapterSlugs: ReadonlySet<string>): string {
  return rewriteLinks(markdown, (target) => {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#') || target.startsWith('/'))
      return target;
    const [file = '', anchor] = target.split('#');
    const name = file.replace(/^\.\//, '');
    const hash = anchor !== undefined ? `#${anchor}` : '';
    if (/^(\.\.\/)?README\.md$/.test(name)) return `/manual/${hash}`;
    const chapter = /^([\w-]+)\.md$/.exec(name)?.[1];
    if (chapter && chapterSlugs.has(chapter)) return `/manual/${chapter}/${hash}`;
    // A file of the repository (source, fixtures): not on the site; its name stays as text.
    return null;
  });
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** One reference page's markdown per tag: every operation with its parameters and responses. */
export function openApiPages(doc: OpenApiDocument): { title: string; body: string }[] {
  const byTag = new Map<string, string[]>();
  const tagOrder = (doc.tags ?? []).map((t) => t.name);
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const tag = op.tags?.[0] ?? 'Other';
      if (!tagOrder.includes(tag)) tagOrder.push(tag);
      const lines = [`### ${method.toUpperCase()} \`${path}\``, ''];
      if (op.summary) lines.push(op.summary, '');
      if (op.description && op.description !== op.summary) lines.push(op.description, '');
      if (op.parameters?.length) {
        lines.push('| Parameter | In | Required | Type | Description |', '|---|---|---|---|---|');
        for (const p of op.parameters) {
          const type = p.schema?.enum ? p.schema.enum.join(' / ') : (p.schema?.type ?? '');
          lines.push(
            `| \`${p.name}\` | ${p.in} | ${p.required ? 'yes' : 'no'} | ${type} | ${(p.description ?? '').replace(/\|/g, '/').replace(/\n/g, ' ')} |`,
          );
        }
        lines.push('');
      }
      const responses = Object.entries(op.responses ?? {});
      if (responses.length) {
        lines.push(
          ...responses.map(
            ([code, r]) => `- **${code}**: ${(r.description ?? '').replace(/\n/g, ' ')}`,
          ),
          '',
        );
      }
      const list = byTag.get(tag) ?? [];
      list.push(lines.join('\n'));
      byTag.set(tag, list);
    }
  }
  return tagOrder
    .filter((t) => byTag.has(t))
    .map((tag) => {
      const description = doc.tags?.find((t) => t.name === tag)?.description;
      return {
        title: tag,
        body: [description ?? '', ...byTag.get(tag)!].filter((s) => s !== '').join('\n\n'),
      };
    });
}

/**
 * Writes emutrack's own documentation as the site's first contents, once (site_options
 * `docs_seeded`): a manual page per `docs/*.md` chapter (links between chapters made the site's,
 * headings with their anchors), an API reference page per OpenAPI tag, a welcome post, and the
 * primary menu. The theme lists a parent page's chapters and gives every page of the tree its
 * sidebar, breadcrumbs and previous/next. Returns whether it wrote them (false: already there).
 */
export async function seedDocs(
  db: Db,
  source: DocsSource,
  now: Date = new Date(),
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const claimed = await tx.query(
      `INSERT INTO site_options (name, value) VALUES ('docs_seeded', to_jsonb($1::text)) ON CONFLICT (name) DO NOTHING`,
      [now.toISOString()],
    );
    if (claimed.rowCount === 0) return false;
    const page = async (
      title: string,
      markdown: string,
      parent: number,
      order: number,
      slug?: string,
    ) =>
      insertPost(tx, {
        type: 'page',
        status: 'publish',
        title,
        // The title is the page's h1: headings below it count on from its anchor, as on GitHub.
        content: markdownToBlocks(markdown, withTitle(title)),
        slug: slug ?? (sanitizeSlug(title) || `page-${order}`),
        parent,
        menuOrder: order,
        dateGmt: now,
        modifiedGmt: now,
      });
    const chapters = source.chapters;
    const manual = await page(
      '使用手册',
      `emutrack 的使用手册，取自仓库的 \`docs/\` 目录：如何运行、配置、导入数据、读取 API，以及每个部分如何工作。\n\n手册以英文撰写（English），共 ${chapters.length} 章，从 [Getting started](/manual/getting-started/) 读起。每章左侧（手机上在页面底部）是目录，页首是所在位置，页末是上一章与下一章；页首的搜索框搜索全部手册与 API 参考。`,
      0,
      1,
      'manual',
    );
    const slugs = new Set(chapters.map((c) => c.slug));
    for (const [i, c] of chapters.entries())
      await page(c.title, manualLinks(c.body, slugs), manual.id, i + 1, c.slug);
    const reference = await page(
      'API v2 参考',
      `由 API 的 OpenAPI 文档生成（${source.openapi?.info?.title ?? 'emutrack API'} ${source.openapi?.info?.version ?? ''}），内容为英文（English）。每个分组一页：路径、参数与响应。请求的信封、配额与每个字段的含义见手册的 [Read API (v2)](/manual/api/)。`,
      0,
      2,
      'api-reference',
    );
    const refPages = source.openapi ? openApiPages(source.openapi) : [];
    for (const [i, p] of refPages.entries())
      await page(p.title, p.body, reference.id, i + 1, `api-${sanitizeSlug(p.title) || i + 1}`);
    const category = await insertTerm(tx, 'category', { name: '文档', slug: 'docs' });
    const welcome = await insertPost(tx, {
      type: 'post',
      status: 'publish',
      title: '欢迎来到 emutrack 文档',
      slug: 'welcome',
      content: markdownToBlocks(
        `emutrack 记录每个服务日里每个车次由哪一组动车组担当：导入观测、生成每日记录与导出，并通过只读 API 提供查询。\n\n- [使用手册](/manual/)：${chapters.length} 个章节（英文），取自仓库的 docs/。\n- [API v2 参考](/api-reference/)：${refPages.length} 个分组，取自 OpenAPI 文档。\n\n本站的内容接口就是 WordPress 的 REST API（\`/wp-json/\`），可以用 WordPress 的客户端管理。`,
      ),
      dateGmt: now,
      modifiedGmt: now,
    });
    await setPostTerms(tx, welcome.id, 'category', [category.id]);
    const menu = await insertTerm(tx, 'nav_menu', {
      name: '主菜单',
      slug: 'primary',
      extra: { locations: ['primary'], auto_add: false },
    });
    const items: { title: string; extra: Record<string, unknown> }[] = [
      { title: '首页', extra: { type: 'custom', object: 'custom', object_id: 0, url: '/' } },
      { title: '', extra: { type: 'post_type', object: 'page', object_id: manual.id } },
      { title: '', extra: { type: 'post_type', object: 'page', object_id: reference.id } },
    ];
    for (const [i, item] of items.entries()) {
      const menuItem = await insertPost(tx, {
        type: 'nav_menu_item',
        status: 'publish',
        title: item.title,
        menuOrder: i + 1,
        extra: item.extra,
        dateGmt: now,
        modifiedGmt: now,
      });
      await setPostTerms(tx, menuItem.id, 'nav_menu', [menu.id]);
    }
    return true;
  });
}

/** A count of heading anchors that has seen the page's title (its h1). */
function withTitle(title: string): SlugCounter {
  const counter = new SlugCounter();
  counter.next(title);
  return counter;
}
