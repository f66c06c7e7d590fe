"""Replies as the client wants them, whatever the application's ``decode_responses`` says."""


def decoded(reply):
    """bytes as UTF-8 text, lists element by element; integers and None as they are."""
    if isinstance(reply, bytes):
        return reply.decode("utf-8")
    if isinstance(reply, list):
        return [decoded(element) for element in reply]
    return reply


def connection_getter_takes_command(pool) -> bool:
    """redis-py before 5.1 wants a command name for ``get_connection``; later ones warn about it."""
    import inspect

    try:
        parameter = inspect.signature(pool.get_connection).parameters.get("command_name")
    except (TypeError, ValueError):
        return True
    return parameter is not None and parameter.default is inspect.Parameter.empty
