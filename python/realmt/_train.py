"""realmt.train: realmt-train in-process."""
import os

from realmt import _realmt


def train(config=None, *, configs=(), progress=None, **options):
    """Trains as realmt-train does, with its options, and returns the run's summary (a dict:
    updates, epochs, stop_reason, losses per update, interrupted).

    config: a dict of realmt-train options (Marian's names; '_' reads as '-'), or a YAML path,
    or a list of YAML paths. configs: more YAML paths. options: more options as keywords. Order of
    precedence as realmt-train's: the YAML files in order, then the dict and keywords (its
    command line). progress(info): called after every update with a dict (update, epoch, loss,
    tokens, tokens_per_second, seconds); returning False asks for a stop. A stop (that, Ctrl-C,
    realmt.request_stop() from another thread, or an exception from progress) saves the model and
    the state after the current update, as SIGTERM does to realmt-train; stop_reason is then
    'signal', and the callback's exception is raised after the save.
    """
    files, values = [], {}
    if isinstance(config, dict):
        values.update(config)
    elif isinstance(config, (str, os.PathLike)):
        files.append(os.fspath(config))
    elif isinstance(config, (list, tuple)):
        files.extend(_path(p) for p in config)
    elif config is not None:
        raise TypeError(f"config: expected a dict of options or YAML path(s), got {type(config).__name__}")
    files.extend(_path(p) for p in ([configs] if isinstance(configs, (str, os.PathLike)) else configs))
    values.update(options)
    if progress is not None and not callable(progress):
        raise TypeError(f"progress: expected a callable, got {type(progress).__name__}")
    args = (["-c"] + files if files else []) + command_line(values)
    return _realmt.train(args, progress)


def command_line(values):
    """realmt-train's command-line words for a dict of options."""
    args = []
    for key, value in values.items():
        if not isinstance(key, str):
            raise TypeError(f"option names are str, got {key!r}")
        name = "--" + key.replace("_", "-")
        if value is None:
            continue
        if isinstance(value, bool):
            args.append(f"{name}={'true' if value else 'false'}")
        elif isinstance(value, (list, tuple)):
            args.append(name)
            args.extend(_word(key, v) for v in value)
            if not value:
                args[-1] = name + "="
        else:
            args.append(f"{name}={_word(key, value)}")
    return args


def _word(key, value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float, os.PathLike)):
        return os.fspath(value) if isinstance(value, os.PathLike) else str(value)
    raise TypeError(f"option {key}: expected str, number, bool or a list of them, got {type(value).__name__}")


def _path(p):
    if not isinstance(p, (str, os.PathLike)):
        raise TypeError(f"config: expected a YAML path, got {type(p).__name__}")
    return os.fspath(p)
