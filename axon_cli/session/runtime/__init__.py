"""session/runtime"""
