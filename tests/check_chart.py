"""check_chart.py: what every chart of server/render/chart.c must be, for
tests/render/check_chart.c.  Run as: python3 check_chart.py <chart.svg> <asserts.py>.

The SVG is read with a real XML parser (ElementTree); the checks below hold
for every chart, then the test's own assertions (asserts.py, one statement
a line) run with the helpers defined here in scope."""
import sys, re, xml.etree.ElementTree as E
ns = '{http://www.w3.org/2000/svg}'
root = E.parse(sys.argv[1]).getroot()
assert root.tag == ns + 'svg', root.tag
def T(e): return ''.join(e.itertext())
title = T(root.find(ns + 'title'))
assert root.get('aria-label') == title, (root.get('aria-label'), title)
assert root.get('role') == 'img'
for e in root.iter():
    assert e.get('style') is None, e.tag
    assert e.tag not in (ns + 'style', ns + 'script'), e.tag
    for k, v in e.attrib.items():
        assert not re.search(r'nan|inf', v, re.I) or k in ('aria-label',), (k, v)
def cls(e): return (e.get('class') or '').split()
def ticks(a): return [T(t) for g in root.iter(ns + 'g') if 'ticks' in cls(g) and a in cls(g) for t in g.findall(ns + 'text')]
def tickpos(a): return [float(t.get('y')) - 4.5 for g in root.iter(ns + 'g') if 'ticks' in cls(g) and a in cls(g) for t in g.findall(ns + 'text')]
def label(a): return [T(t) for t in root.iter(ns + 'text') if cls(t) == ['axis-label', a]][0]
def legend(): return [T(t) for g in root.findall(ns + 'g') if 'legend' in cls(g) for t in g.findall(ns + 'text')]
def sgroup(i): return [g for g in root.findall(ns + 'g') if 's%d' % i in cls(g)]
def marks(i):
    out = []
    for g in sgroup(i):
        for e in g:
            if e.tag == ns + 'circle': out.append((float(e.get('cx')), float(e.get('cy')), T(e)))
            if e.tag == ns + 'rect': out.append((float(e.get('x')) + float(e.get('width')) / 2, float(e.get('y')) + float(e.get('height')) / 2, T(e)))
    return out
def bars(i): return [(float(e.get('x')), float(e.get('y')), T(e)) for g in sgroup(i) for e in g.findall(ns + 'rect')]
def path(i):
    for g in sgroup(i):
        for e in g.findall(ns + 'path'):
            n = [float(v) for v in re.findall(r'-?[0-9.]+', e.get('d'))]
            return list(zip(n[0::2], n[1::2]))
    return []
def num(s): return float(s.replace(',', '').replace('K', 'e3'))
ybase = lambda: tickpos('y')[0]
ytop = lambda: tickpos('y')[-1]
yspan = lambda: num(ticks('y')[-1])
def yval(py): return (ybase() - py) / (ybase() - ytop()) * yspan()
notext = [T(t) for t in root.iter(ns + 'text') if 'no-data' in cls(t)]
exec(open(sys.argv[2]).read())
