from mmtools import matrix, mkscript


def test_self_test_passes(capsys):
    assert matrix.self_test() == 0
    assert '0 failed' in capsys.readouterr().out


def test_words_like_the_kernel():
    assert mkscript.words('run touch 8 "a b" # c') == ['run', 'touch', '8', 'a b']
    assert mkscript.words('  "q\\"x"') == ['q"x']
    try:
        mkscript.words('run "open')
        assert False, 'unterminated quote accepted'
    except ValueError as e:
        assert 'unterminated quote' in str(e)
