"""evalcore: are the differences between ranking methods real or chance? (Evert 2004)"""
