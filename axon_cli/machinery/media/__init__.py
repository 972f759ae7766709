"""Pictures: the one loader (format by magic bytes, scaled and recompressed), the decode budget
every picture of the process shares, and PNG chunk repair.
"""
