#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""check_uapi.py - does include/uapi/linux/metacache.h say what
Documentation/netlink/metacache.yaml specifies?

    check_uapi.py SPEC.yaml HEADER.h [CC]

Renders every name of the spec the way the kernel's ynl-gen-c.py names
them (name-prefix + NAME, dashes to underscores, upper case), writes a C
program that compares each with the header's value, compiles it with CC
(default cc) and runs it.  Also checks the spec's internal references
and that the header compiles on its own (C with -pedantic, and C++).
TAP output; exit 1 on any failure, 0 with a SKIP when PyYAML is missing.
"""
import os
import subprocess
import sys
import tempfile

tests = []


def result(ok, name, diag=None):
    tests.append((ok, name, diag))


def c_name(s):
    return s.upper().replace('-', '_')


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    spec_path, header = sys.argv[1], os.path.abspath(sys.argv[2])
    cc = sys.argv[3] if len(sys.argv) > 3 else 'cc'
    try:
        import yaml
    except ImportError:
        print('TAP version 13\n1..0 # SKIP python3 has no yaml module '
              '(Debian: python3-yaml)')
        return 0
    with open(spec_path) as f:
        spec = yaml.safe_load(f)

    checks = []          # (C expression, description)
    family = spec['name']

    # the family
    checks.append((f'!strcmp({c_name(spec["c-family-name"])}, "{family}")',
                   f'{c_name(spec["c-family-name"])} is "{family}"'))
    checks.append((f'{c_name(spec["c-version-name"])} == {spec.get("version", 1)}',
                   f'{c_name(spec["c-version-name"])} == {spec.get("version", 1)}'))

    consts, enums = {}, {}
    problems = []
    for d in spec.get('definitions', []):
        if d['type'] == 'const':
            n = c_name(f'{family}-{d["name"]}')
            consts[d['name']] = d['value']
            checks.append((f'{n} == {d["value"]}', f'const {n} == {d["value"]}'))
            continue
        prefix = d.get('name-prefix', f'{family}-{d["name"]}-')
        entries = [e if isinstance(e, str) else e['name'] for e in d['entries']]
        enums[d['name']] = entries
        start = d.get('value-start', 0)
        for i, e in enumerate(entries):
            n = c_name(prefix + e)
            v = (1 << (start + i)) if d['type'] == 'flags' else start + i
            checks.append((f'{n} == {v}', f'{d["type"]} {n} == {v}'))
        if d.get('render-max'):
            n = c_name(prefix + 'max')
            checks.append((f'{n} == {len(entries) - 1 + start}',
                           f'{n} == {len(entries) - 1 + start}'))

    sets = {s['name']: s for s in spec['attribute-sets']}
    for s in spec['attribute-sets']:
        prefix = s.get('name-prefix', f'{family}-{s["name"]}-a-')
        v = 0
        names = set()
        for a in s['attributes']:
            v = a.get('value', v)
            n = c_name(prefix + a['name'])
            if a['name'] in names:
                problems.append(f'set {s["name"]}: {a["name"]} twice')
            names.add(a['name'])
            checks.append((f'{n} == {v}', f'attr {n} == {v}'))
            if a.get('nested-attributes') and a['nested-attributes'] not in sets:
                problems.append(f'{n}: no attribute set {a["nested-attributes"]}')
            if a.get('enum') and a['enum'] not in enums:
                problems.append(f'{n}: no enum {a["enum"]}')
            for k, lim in a.get('checks', {}).items():
                if isinstance(lim, str) and k != 'flags-mask' and lim not in consts \
                        and not lim.endswith(('-min', '-max')):
                    problems.append(f'{n}: check {k} names no const {lim}')
                if k == 'flags-mask' and lim not in enums:
                    problems.append(f'{n}: flags-mask names no flags {lim}')
            v += 1
        last = v - 1
        if 'attr-max-name' in s:
            n = c_name(s['attr-max-name'])
            checks.append((f'{n} == {last}', f'{n} == {last}'))
        if 'attr-cnt-name' in s:
            n = c_name(s['attr-cnt-name'])
            checks.append((f'{n} == {v}', f'{n} == {v}'))

    ops = spec['operations']
    prefix = ops.get('name-prefix', f'{family}-cmd-')
    v = 0
    last_plain = 0
    for o in ops['list']:
        v = o.get('value', v)
        if not o['name'].startswith('bench-'):
            last_plain = v + 1
        elif 'cmd-bench-first' in consts and not (
                consts['cmd-bench-first'] <= v <= consts['cmd-bench-last']):
            problems.append(f'{o["name"]} is outside the BENCH_* range')
        n = c_name(prefix + o['name'])
        checks.append((f'{n} == {v}', f'cmd {n} == {v}'))
        aset = sets.get(o.get('attribute-set', ''), None)
        if o.get('attribute-set') and not aset:
            problems.append(f'{n}: no attribute set {o["attribute-set"]}')
        for kind in ('do', 'dump'):
            for way in ('request', 'reply'):
                for a in o.get(kind, {}).get(way, {}).get('attributes', []):
                    if aset and a not in [x['name'] for x in aset['attributes']]:
                        problems.append(f'{n} {kind} {way}: no attribute {a}')
        v += 1
    if 'cmd-bench-first' in consts and last_plain > consts['cmd-bench-first']:
        problems.append('commands reach the range reserved for BENCH_*')

    result(not problems, 'the spec\'s references resolve', '\n'.join(problems))

    with tempfile.TemporaryDirectory() as tmp:
        # the header alone, strict C and C++
        for lang, std, extra in (('c', 'c99', ['-pedantic']),
                                 ('c', 'gnu89', []), ('c++', 'c++11', [])):
            src = os.path.join(tmp, 'alone.' + ('c' if lang == 'c' else 'cc'))
            with open(src, 'w') as f:
                f.write(f'#include "{header}"\nint mc_dummy;\n')
            compiler = cc if lang == 'c' else 'g++'
            p = subprocess.run([compiler, f'-std={std}', '-Wall', '-Wextra',
                                '-Werror', *extra, '-fsyntax-only', src],
                               capture_output=True, text=True)
            if lang == 'c++' and p.returncode and 'not found' in p.stderr:
                result(True, f'header compiles as {std} # SKIP no g++')
                continue
            result(p.returncode == 0, f'header compiles alone as {std}',
                   p.stderr.strip())

        src = os.path.join(tmp, 'check.c')
        with open(src, 'w') as f:
            f.write('#include <stdio.h>\n#include <string.h>\n'
                    f'#include "{header}"\n\nint main(void)\n{{\n\tint bad = 0;\n\n')
            for expr, desc in checks:
                desc = desc.replace('"', '\\"')
                f.write(f'\tif (!({expr})) {{\n\t\tprintf("header differs: {desc}\\n");'
                        '\n\t\tbad++;\n\t}\n')
            f.write('\treturn bad != 0;\n}\n')
        exe = os.path.join(tmp, 'check')
        p = subprocess.run([cc, '-Wall', '-o', exe, src], capture_output=True,
                           text=True)
        if p.returncode:
            # a name missing from the header: say which
            result(False, f'every name of the spec is in the header '
                   f'({len(checks)} names)', p.stderr.strip())
        else:
            result(True, f'every name of the spec is in the header ({len(checks)} names)')
            p = subprocess.run([exe], capture_output=True, text=True)
            result(p.returncode == 0, 'the header\'s values are the spec\'s',
                   p.stdout.strip())

    print('TAP version 13')
    print(f'1..{len(tests)}')
    failed = 0
    for i, (ok, name, diag) in enumerate(tests, 1):
        print(f'{"ok" if ok else "not ok"} {i} {name}')
        if not ok:
            failed += 1
            for line in (diag or '').splitlines()[:40]:
                print(f'# {line}')
    print(f'# Totals: pass:{len(tests) - failed} fail:{failed} skip:0')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
