"""Study progress: FSRS scheduling and a durable SQLite store (see store.py), stats and export.

Import what you need from the submodules (`quizbank.progress.store`, `.stats`, `.scheduler`, `.export`); this
package file stays empty so that `import quizbank` remains cheap.
"""
