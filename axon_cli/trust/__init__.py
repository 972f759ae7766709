"""Folder trust: nothing a project ships may widen what axon does until the user has trusted it."""

from axon_cli.trust.items import TrustEverything, TrustNothing, TrustView, WideningItem, file_item

__all__ = ["WideningItem", "TrustView", "TrustEverything", "TrustNothing", "file_item"]
