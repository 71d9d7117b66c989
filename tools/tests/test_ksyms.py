"""tools/gen-ksyms.py: the kernel's symbol table.  Two static functions
of one name in different files are told apart by their file's name
(shrink[reclaim]), so a profile or backtrace cannot take one for the
other; a name used once stays as it is."""
import importlib.util
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location('gen_ksyms', os.path.join(HERE, '..', 'gen-ksyms.py'))
gen_ksyms = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen_ksyms)


def test_duplicate_static_names_get_their_file(tmp_path):
    srcs = {'alpha.c': 'static int shrink(int x) { return x * 3; }\nint alpha(int x) { return shrink(x); }\n',
            'beta.c': 'static int shrink(int x) { return x * 5; }\nint beta(int x) { return shrink(x) + 1; }\n'}
    objs = []
    for name, text in srcs.items():
        (tmp_path / name).write_text(text)
        obj = str(tmp_path / (name[:-2] + '.o'))
        subprocess.run(['gcc', '-g', '-O0', '-c', str(tmp_path / name), '-o', obj], check=True)
        objs.append(obj)
    elf = str(tmp_path / 'both.o')
    subprocess.run(['ld', '-r', '-o', elf] + objs, check=True)
    names = sorted(n for _, _, n in gen_ksyms.symbols(elf))
    assert names == ['alpha', 'beta', 'shrink[alpha]', 'shrink[beta]']
