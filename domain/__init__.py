"""What every app shares and none owns: the domain's errors and its translatable messages.

The lowest layer: no models, nothing from ``accounts``, ``scoring`` or ``tournaments``.
"""
