// The SVG brand-asset filter matches elements and attributes by their local name, whatever namespace prefix
// they carry: XML prefixes may hold dots, hyphens, underscores, digits and letters beyond ASCII, and a browser
// runs <x.y:script xmlns:x.y="http://www.w3.org/2000/svg"> as a script. Harmless prefixed elements still pass.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkSvg } from '../../src/modules/system/web-identity/service.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
const svg = (ns: string, inner: string, attrs = '') => `<svg xmlns="${SVG_NS}" xmlns:${ns}="${SVG_NS}"${attrs}>${inner}</svg>`;
const check = (text: string) => checkSvg(Buffer.from(text));

test('a script element is refused whatever its prefix', () => {
  const cases = [
    svg('x.y', '<x.y:script>alert(1)</x.y:script>'), // the payload
    svg('x.y', '<X.Y:SCRIPT>alert(1)</X.Y:SCRIPT>'),
    svg('x.y', '< x.y:script>alert(1)</x.y:script>'),
    svg('x.y', '<x.y:script href="#a"/>'),
    svg('x.y', '<x.y:script\n>alert(1)</x.y:script>'),
    svg('a_1-b.c2', '<a_1-b.c2:script>alert(1)</a_1-b.c2:script>'),
    svg('é.x', '<é.x:script>alert(1)</é.x:script>'),
    svg('x.y', '<x.y:script><![CDATA[alert(1)]]></x.y:script>'),
  ];
  for (const c of cases) assert.match(String(check(c)), /script|CDATA/, c);
});

test('foreignObject, embedded content, event handlers and links are refused whatever their prefix', () => {
  const xlink = 'http://www.w3.org/1999/xlink';
  const cases: [string, RegExp][] = [
    [svg('x.y', '<x.y:foreignObject><div/></x.y:foreignObject>'), /foreignObject/],
    [svg('x-1.y', '<x-1.y:iframe/>'), /embedded/],
    [svg('x.y', '<rect x.y:onclick="alert(1)"/>'), /event handler/],
    [`<svg xmlns="${SVG_NS}" xmlns:x.y="${xlink}"><image x.y:href="https://example.com/x.png"/></svg>`, /external resource \(x\.y:href\)/],
    [`<svg xmlns="${SVG_NS}" xmlns:x.y="${xlink}"><a><x.y:set attributeName="x.y:href" to="#z"/></a></svg>`, /animates a link/],
  ];
  for (const [c, why] of cases) assert.match(String(check(c)), why, c);
});

test('prefixed elements that are no script are accepted', () => {
  for (const c of [
    svg('x.y', '<x.y:rect width="1" height="1"/><x.y:scripts/><x.y:g><x.y:use x.y:href="#a"/></x.y:g>'),
    svg('my.ns-1', '<my.ns-1:circle r="1" my.ns-1:fill="#000"/>'),
  ]) assert.equal(check(c), true, c);
});
