#!/usr/bin/env python3
"""Gives each entry of test/site/oracle/known-differences.json its reason.

ORACLE_WRITE_KNOWN=1 writes a new entry with the difference found (what WordPress answered,
what the site answered); this script replaces that with the reason, by rule, where a rule
knows it (docs/site-wordpress-fidelity.md explains each). An entry no rule knows keeps its
difference, marked "open:", so the list says honestly what is not yet closed.
"""
import json
import re
import sys

PATH = 'test/site/oracle/known-differences.json'

RULES = [
    # (regex on the request id, regex on the recorded difference, reason)
    (r'^(posts|blocks|app-passwords):.*(context=edit|status=any|status=draft).* as (author|contributor|email-username)',
     r'headers\.total',
     'choice (docs/site-permissions.md): totals count what the caller may list (edit context: '
     'may edit); WordPress counts rows it then drops'),
    (r'^blocks:.* as (anonymous|subscriber)', r'headers\.total',
     'choice (docs/site-permissions.md): a block list the caller may not read is empty with '
     'X-WP-Total 0; WordPress drops the items and still counts them'),
    (r'^index:', r'menu-items/\{(id|parent)\}/autosaves',
     'open: the spec\'s menu-item autosaves routes (/wp/v2/menu-items/{id}/autosaves, '
     '/wp/v2/menu-items/{parent}/autosaves/{id}) are not registered'),
    (r'menu-items/\{menuitem:home\}/autosaves', r'.',
     'open: menu items have no autosaves route yet'),
    (r'^menus:', r'url|menu-item-object',
     'open: menu items: the url of category links, the wp:menu-item-object link'),
    (r'^site-routes:.*/wp/v2/settings', r'allow|methods|endpoints',
     'choice (docs/site-wordpress-fidelity.md): the settings are read only: the site\'s name and '
     'tagline are its configuration (SITE_NAME, SITE_DESCRIPTION) and the other settings the '
     'spec\'s site facts, so /wp/v2/settings has no POST, PUT or PATCH'),
    (r'^site-routes:.*/wp/v2/comments', r'allow|methods|endpoints',
     'choice (docs/site-wordpress-fidelity.md): the site keeps no comments (the spec describes '
     'none): its comments collection is always empty and has no POST'),
    # Requests marked beyond61 in the corpus (a list filter 6.1 ignores): their own column.
    (r'^list-params:.*[?&]format=', r'.',
     'beyond 6.1: the spec\'s `format` list filter (posts of these formats only; a WordPress after '
     '6.1): 6.1 ignores the parameter, so it counts and lists every post and keeps `format=` in its '
     'Link as sent'),
    (r'^list-params:.*[?&]ignore_sticky=false', r'.',
     'beyond 6.1: the spec\'s `ignore_sticky` list filter (false: sticky posts first; a WordPress '
     'after 6.1): 6.1 ignores the parameter, so its order has no sticky posts first and its Link '
     'keeps `ignore_sticky=false` as sent (here the sanitised boolean, as a WordPress that has the '
     'parameter writes it)'),
    (r'(tags|users)\?offset=1', r'headers\.link',
     'open: with offset, WordPress counts the page from the offset (ceil(offset/per_page)+1) for '
     'its Link rels'),
    (r'.', r'permalink_template|generated_slug',
     'open: the sample permalink of a child page (parent path) and a generated slug made unique'),
    (r'autosaves|preview_link', r'preview_link',
     'open: an autosave\'s preview_link uses ?p= where WordPress uses the pretty link'),
    (r'^writes:POST /wp/v2/pages', r'date_gmt',
     'open: a draft page created without a date: WordPress sets date_gmt, the site leaves it null'),
]


def main() -> None:
    known = json.load(open(PATH, encoding='utf-8'))
    out = {}
    for rid, reason in known.items():
        if not reason.startswith('.') and not reason.startswith('open: .'):
            out[rid] = reason  # already explained
            continue
        diff = reason[len('open: '):] if reason.startswith('open: ') else reason
        for id_re, diff_re, why in RULES:
            if re.search(id_re, rid) and re.search(diff_re, diff):
                out[rid] = why
                break
        else:
            out[rid] = f'open: {diff}'
    json.dump(out, open(PATH, 'w', encoding='utf-8'), ensure_ascii=False, indent=2)
    open(PATH, 'a', encoding='utf-8').write('\n')
    kinds = {}
    for why in out.values():
        kinds[why.split(':')[0]] = kinds.get(why.split(':')[0], 0) + 1
    print(kinds, file=sys.stderr)


main()
