"""Reusable widgets: `question_view.QuestionView`, `demo_panel.DemoPanel`, `heatmap.Heatmap`."""
