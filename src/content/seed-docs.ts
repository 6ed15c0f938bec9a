import type { Db } from '../db/db.js';
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

export interface DocsSource {
  /** The README (markdown); each `## ` section becomes a page. */
  readme: string;
  /** The API's OpenAPI document; each tag becomes a reference page. */
  openapi?: OpenApiDocument;
}

/** The README's `## ` sections (title, markdown body), without the table of contents tail. */
export function readmeSections(readme: string): { title: string; body: string }[] {
  const sections: { title: string; body: string }[] = [];
  let current: { title: string; lines: string[] } | undefined;
  let fenced = false;
  for (const line of readme.replace(/\r\n?/g, '\n').split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = !fenced && /^## (.+)$/.exec(line);
    if (m) {
      if (current) sections.push({ title: current.title, body: current.lines.join('\n').trim() });
      current = { title: m[1]!.trim(), lines: [] };
    } else current?.lines.push(line);
  }
  if (current) sections.push({ title: current.title, body: current.lines.join('\n').trim() });
  return sections.filter((s) => s.body !== '');
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
        lines.push('| 参数 | 位置 | 必填 | 类型 | 说明 |', '|---|---|---|---|---|');
        for (const p of op.parameters) {
          const type = p.schema?.enum ? p.schema.enum.join(' / ') : (p.schema?.type ?? '');
          lines.push(
            `| \`${p.name}\` | ${p.in} | ${p.required ? '是' : '否'} | ${type} | ${(p.description ?? '').replace(/\|/g, '/').replace(/\n/g, ' ')} |`,
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
 * `docs_seeded`): a manual page per README section, an API reference page per OpenAPI tag, a
 * welcome post, and the primary menu. Returns whether it wrote them (false: already there).
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
        content: markdownToBlocks(markdown),
        slug: slug ?? (sanitizeSlug(title) || `page-${order}`),
        parent,
        menuOrder: order,
        dateGmt: now,
        modifiedGmt: now,
      });
    const manual = await page(
      '使用手册',
      '本手册取自 emutrack 的 README：如何运行、配置、导入数据、读取 API，以及每个部分如何工作。',
      0,
      1,
      'manual',
    );
    const sections = readmeSections(source.readme);
    for (const [i, s] of sections.entries()) await page(s.title, s.body, manual.id, i + 1);
    const reference = await page(
      'API v2 参考',
      `由 API 的 OpenAPI 文档生成（${source.openapi?.info?.title ?? 'emutrack API'} ${source.openapi?.info?.version ?? ''}）。每个分组一页：路径、参数与响应。`,
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
        `emutrack 记录每个服务日里每个车次由哪一组动车组担当：导入观测、生成每日记录与导出，并通过只读 API 提供查询。\n\n- [使用手册](/manual/)：${sections.length} 个章节，取自 README。\n- [API v2 参考](/api-reference/)：${refPages.length} 个分组，取自 OpenAPI 文档。\n\n本站的内容接口就是 WordPress 的 REST API（\`/wp-json/\`），可以用 WordPress 的客户端管理。`,
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
